/**
 * The assistant's text as markdown (GitHub flavour) with highlighted code. Raw HTML is never
 * rendered; links open outside the app; images become links (the CSP loads none from elsewhere).
 */
import { memo, type MouseEvent, type ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';

const OPENABLE = /^(https?:|mailto:)/i;

export function openLink(event: MouseEvent, href: string | undefined): void {
  event.preventDefault();
  if (href !== undefined && OPENABLE.test(href)) window.open(href, '_blank', 'noopener,noreferrer');
}

function Link({ href, children }: { href: string | undefined; children: ReactNode }) {
  return (
    <a href={href} rel="noopener noreferrer" onClick={(e) => openLink(e, href)}>
      {children}
    </a>
  );
}

const components: Components = {
  a: ({ href, children }) => <Link href={href}>{children}</Link>,
  img: ({ src, alt }) => {
    const href = typeof src === 'string' ? src : undefined;
    return <Link href={href}>{alt || href || 'image'}</Link>;
  },
};

const remarkPlugins = [remarkGfm];
// Only fenced code that names its language: guessing on every streamed delta costs too much.
const rehypePlugins = [rehypeHighlight];

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
