/**
 * The assistant's text as markdown (GitHub flavour) with highlighted code. Raw HTML is never
 * rendered, but shown as text; links open outside the app; images become links (the CSP loads none from elsewhere).
 */
import { memo, useEffect, useRef, useState, type MouseEvent, type ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';

// What main will open outside the app (http and https only).
const OPENABLE = /^https?:/i;

export function openLink(event: MouseEvent, href: string | undefined): void {
  event.preventDefault();
  if (href !== undefined && OPENABLE.test(href)) window.open(href, '_blank', 'noopener,noreferrer');
}

function Link({ href, children }: { href: string | undefined; children: ReactNode }) {
  return (
    <a href={href} title={href} rel="noopener noreferrer" onClick={(e) => openLink(e, href)}>
      {children}
    </a>
  );
}

const components: Components = {
  a: ({ href, children }) => <Link href={href}>{children}</Link>,
  // A wide code block scrolls sideways: focusable so the keyboard can scroll it too (WCAG 2.1.1).
  pre: ({ children }) => <pre tabIndex={0}>{children}</pre>,
  img: ({ src, alt }) => {
    const href = typeof src === 'string' ? src : undefined;
    return <Link href={href}>{alt || href || 'image'}</Link>;
  },
};

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

const BLOCK_PARENTS = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition']);

/** A block of raw HTML as the lines it was written in: a paragraph of text with line breaks. */
function htmlAsParagraph(value: string): MdNode {
  const children: MdNode[] = [];
  value.split('\n').forEach((line, i) => {
    if (i > 0) children.push({ type: 'break' });
    children.push({ type: 'text', value: line });
  });
  return { type: 'paragraph', children };
}

/**
 * Raw HTML in an answer is shown as the text it is, never dropped: CommonMark reads
 * `<h1>Hello</h1>` and the lines after it up to a blank line as one HTML block, which
 * `skipHtml` alone would make vanish whole.
 */
export function remarkHtmlAsText() {
  const walk = (node: MdNode) => {
    if (!node.children) return;
    const block = BLOCK_PARENTS.has(node.type);
    node.children = node.children.map((child) => {
      if (child.type !== 'html') {
        walk(child);
        return child;
      }
      const value = child.value ?? '';
      return block ? htmlAsParagraph(value) : { type: 'text', value };
    });
  };
  return (tree: MdNode) => walk(tree);
}

const remarkPlugins = [remarkGfm, remarkHtmlAsText];
// Only fenced code that names its language: guessing on every streamed delta costs too much.
const rehypePlugins = [rehypeHighlight];

/** How often a streaming answer is parsed again: parsing all of it per token would be quadratic. */
export const STREAM_RENDER_MS = 120;

/**
 * The text to draw: while `live`, at most one new value per STREAM_RENDER_MS (the newest when
 * the wait ends); once the message is done, at once.
 */
export function useThrottledText(text: string, live: boolean): string {
  const [shown, setShown] = useState(text);
  const latest = useRef(text);
  latest.current = text;
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    if (!live) {
      if (timer.current !== null) clearTimeout(timer.current);
      timer.current = null;
      setShown(text);
      return;
    }
    if (timer.current !== null) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      setShown(latest.current);
    }, STREAM_RENDER_MS);
  }, [text, live]);
  useEffect(() => () => {
    if (timer.current !== null) clearTimeout(timer.current);
  }, []);
  return live ? shown : text;
}

/** Memoised by text: while one message streams, the others are not parsed again. */
export const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  return (
    <div className="markdown">
      <Markdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components} skipHtml>
        {text}
      </Markdown>
    </div>
  );
});
