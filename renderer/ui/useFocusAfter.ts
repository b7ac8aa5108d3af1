/**
 * Where the focus goes when an action ends. While it runs, the control the user pressed is
 * disabled or goes (a dialog closes, Apply is disabled), and the browser drops the focus on the
 * page body: the next Tab starts from the top and reaches the terminal, which keeps Tab. So when
 * `busy` ends with the focus on the body, `refocus` puts it where the user's next action is.
 */
import { useEffect, useLayoutEffect, useRef } from 'react';

export function useFocusAfter(busy: boolean, refocus: () => void): void {
  const was = useRef(busy);
  const latest = useRef(refocus);
  useLayoutEffect(() => {
    latest.current = refocus;
  });
  useEffect(() => {
    const ended = was.current && !busy;
    was.current = busy;
    if (!ended) return;
    const active = document.activeElement;
    if (active === null || active === document.body) latest.current();
  }, [busy]);
}
