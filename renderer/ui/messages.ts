/**
 * Sentences the page says to the user that are not main's own words (those come with main's
 * answers and errors): one place, so a wording is changed once and tests can name it.
 */
export const MESSAGES = {
  dismissNotice: 'Dismiss this notice',
  noFolder: 'No folder attached: the sandbox sees none of your files.',
} as const;
