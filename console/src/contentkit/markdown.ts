// A small Markdown subset turned into DOM nodes (never into an HTML string): paragraphs, headings,
// lists, fenced code, **bold**, *italic*, `code` and [links](https://…). Anything else, HTML tags
// included, stays literal text. Links pass the same http(s)-only rule as every guest URL.

import { safeHttpUrl } from './urls.ts';

const INLINE = /(\*\*([^*]+)\*\*)|(\*([^*]+)\*|_([^_]+)_)|(`([^`]+)`)|(\[([^\]]+)\]\(([^)\s]+)\))/g;

function appendInline(parent: HTMLElement, text: string): void {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index ?? 0;
    if (index > last) parent.append(document.createTextNode(text.slice(last, index)));
    if (match[1] !== undefined) {
      const strong = document.createElement('strong');
      strong.textContent = match[2];
      parent.append(strong);
    } else if (match[3] !== undefined) {
      const em = document.createElement('em');
      em.textContent = match[4] ?? match[5] ?? '';
      parent.append(em);
    } else if (match[6] !== undefined) {
      const code = document.createElement('code');
      code.textContent = match[7];
      parent.append(code);
    } else {
      const href = safeHttpUrl(match[10]);
      if (href === null) {
        // Not an http(s) URL: the whole construct stays visible as text, inert.
        parent.append(document.createTextNode(match[0]));
      } else {
        const anchor = document.createElement('a');
        anchor.href = href;
        anchor.target = '_blank';
        anchor.rel = 'noopener noreferrer nofollow';
        anchor.textContent = match[9];
        parent.append(anchor);
      }
    }
    last = index + match[0].length;
  }
  if (last < text.length) parent.append(document.createTextNode(text.slice(last)));
}

export function renderMarkdown(source: string, options: { headingLevelOffset?: number } = {}): DocumentFragment {
  const fragment = document.createDocumentFragment();
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  let paragraph: string[] = [];
  let list: HTMLElement | null = null;
  const flushParagraph = () => {
    if (paragraph.length === 0) return;
    const p = document.createElement('p');
    appendInline(p, paragraph.join(' '));
    fragment.append(p);
    paragraph = [];
  };
  const closeList = () => {
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith('```')) {
      flushParagraph();
      closeList();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      const pre = document.createElement('pre');
      const element = document.createElement('code');
      element.textContent = code.join('\n');
      pre.append(element);
      fragment.append(pre);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flushParagraph();
      closeList();
      const level = Math.min(6, heading[1].length + (options.headingLevelOffset ?? 2));
      const h = document.createElement(`h${level}`);
      appendInline(h, heading[2]);
      fragment.append(h);
      continue;
    }
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flushParagraph();
      if (list === null) {
        list = document.createElement(/^\s*\d/.test(line) ? 'ol' : 'ul');
        fragment.append(list);
      }
      const li = document.createElement('li');
      appendInline(li, item[1]);
      list.append(li);
      continue;
    }
    if (line.trim() === '') {
      flushParagraph();
      closeList();
      continue;
    }
    closeList();
    paragraph.push(line.trim());
  }
  flushParagraph();
  return fragment;
}
