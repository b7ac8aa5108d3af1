/**
 * The lines a terminal shows when it starts again in place in its chat's new sandbox (the tab,
 * its name and its screen stay; the shell is new), one per reason the sandbox was made again.
 */

/** The chat's folders changed (folders.remounted). */
export const FOLDERS_CHANGED_NOTE = 'The chat’s folders changed: the sandbox was recreated with them and this terminal started again.';

/** The chat's project environment moved its sandbox to another image (environment.switched). */
export const ENVIRONMENT_CHANGED_NOTE = 'The chat’s project environment changed: the sandbox was made again from its image and this terminal started again.';

/** The sandbox was made again for another reason (the full default image at its next start, changed settings). */
export const RECREATED_NOTE = 'The chat’s sandbox was made again (its image or settings changed) and this terminal started again in it.';
