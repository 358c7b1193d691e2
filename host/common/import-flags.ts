// Which of a process's Node flags a forked worker must inherit to load the same code: the
// `--import` modules (an installed package's loader hook). Pure; never inherits anything else.

/** The `--import X` / `--import=X` pairs of `execArgv`, in order, as separate arguments. */
export function importFlags(execArgv: readonly string[]): string[] {
  const flags: string[] = [];
  for (let index = 0; index < execArgv.length; index++) {
    const arg = execArgv[index];
    if (arg === '--import' && index + 1 < execArgv.length) flags.push('--import', execArgv[++index]);
    else if (arg.startsWith('--import=')) flags.push('--import', arg.slice('--import='.length));
  }
  return flags;
}
