// Which npm packages a tree of GitBook's integrations needs, and where: one hoisted version per
// package at the tree's root (as a workspace install hoists it), conflicting majors nested in the
// integrations that ask for them. Pure: reads nothing, installs nothing.

/** What an integration's package.json says about its dependencies. */
export interface PackageDeps {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export interface DependencyPlan {
  /** Installed at the tree's root: every integration without a conflicting need resolves them there. */
  hoisted: Record<string, string>;
  /** Installed into `integrations/<name>/node_modules`, per integration. */
  nested: Record<string, Record<string, string>>;
  /** Packages left out, with why (build tools, the workspace's own CLI and settings). */
  skipped: { integration: string; name: string; range: string; why: string }[];
}

/**
 * GitBook's workspace links `@gitbook/runtime` and `@gitbook/api` from its own `packages/`; a tree
 * outside that workspace takes them from npm at the versions this repository pins (its `@gitbook/api`
 * 0.195.0 is not published). Other `workspace:` packages are GitBook's build tooling.
 */
export function workspacePins(ownPackage: PackageDeps): Record<string, string> {
  const own = { ...ownPackage.devDependencies, ...ownPackage.dependencies };
  const pins: Record<string, string> = {};
  for (const name of ['@gitbook/runtime', '@gitbook/api']) {
    if (typeof own[name] !== 'string') throw new Error(`this repository's package.json does not pin ${name}`);
    pins[name] = own[name];
  }
  return pins;
}

/** Type declarations are the only development dependencies a run or a type-check needs. */
export const TYPE_PACKAGE = /^@types\/|-types$/;

interface Want {
  integration: string;
  range: string;
}

/** Ranges that one installed version can satisfy share a key: the major (0.x: the minor), or the exact version. */
export function compatibilityKey(range: string): string | null {
  const trimmed = range.trim();
  if (trimmed === '*' || trimmed === '' || trimmed === 'latest') return null;
  const match = /^(\^|~|>=)?\s*v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?/.exec(trimmed);
  if (match === null) return trimmed;
  const [, operator, major, minor = '0'] = match;
  if (operator === undefined && /^\d+\.\d+\.\d+$/.test(trimmed)) return `=${trimmed}`;
  if (operator === '>=') return 'any';
  return major === '0' ? `0.${minor}` : major;
}

/** Orders ranges by the version they start from (numerically), for picking the highest. */
function lowerBound(range: string): number[] {
  return (/(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(range) ?? []).slice(1, 4).map((part) => Number(part ?? 0));
}

function compareBounds(a: string, b: string): number {
  const [x, y] = [lowerBound(a), lowerBound(b)];
  for (let index = 0; index < 3; index++) if (x[index] !== y[index]) return (x[index] ?? 0) - (y[index] ?? 0);
  return 0;
}

/** The plan for `packages` (integration folder name → its package.json), with the workspace's packages pinned. */
export function planDependencies(packages: Record<string, PackageDeps>, pins: Record<string, string>): DependencyPlan {
  const wants = new Map<string, Want[]>();
  const skipped: DependencyPlan['skipped'] = [];
  const want = (integration: string, name: string, range: string) => {
    const list = wants.get(name) ?? [];
    list.push({ integration, range: Object.hasOwn(pins, name) ? pins[name] : range });
    wants.set(name, list);
  };
  for (const integration of Object.keys(packages).sort()) {
    const { dependencies = {}, devDependencies = {} } = packages[integration];
    for (const [name, range] of Object.entries(dependencies)) {
      if (range.startsWith('workspace:') && !Object.hasOwn(pins, name))
        skipped.push({
          integration,
          name,
          range,
          why: "a package of GitBook's workspace that npm does not publish at that version",
        });
      else want(integration, name, range);
    }
    for (const [name, range] of Object.entries(devDependencies)) {
      if (Object.hasOwn(dependencies, name)) continue;
      if (Object.hasOwn(pins, name) || TYPE_PACKAGE.test(name)) want(integration, name, range);
      else skipped.push({ integration, name, range, why: 'a build or test tool, not needed to run or type-check' });
    }
  }
  const hoisted: Record<string, string> = {};
  const nested: Record<string, Record<string, string>> = {};
  for (const name of [...wants.keys()].sort()) {
    const groups = new Map<string, Want[]>();
    for (const entry of wants.get(name)!) {
      const key = compatibilityKey(entry.range);
      if (key === null || key === 'any') continue;
      groups.set(key, [...(groups.get(key) ?? []), entry]);
    }
    const highest = (group: Want[]) =>
      group
        .map((entry) => entry.range)
        .sort(compareBounds)
        .at(-1)!;
    const ranked = [...groups.values()].sort((a, b) => b.length - a.length || compareBounds(highest(b), highest(a)));
    if (ranked.length === 0) {
      hoisted[name] = 'latest';
      continue;
    }
    hoisted[name] = highest(ranked[0]);
    for (const group of ranked.slice(1)) {
      for (const entry of group) (nested[entry.integration] ??= {})[name] = entry.range;
    }
  }
  return { hoisted, nested, skipped };
}
