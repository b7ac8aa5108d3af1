/** What the network feature offers the app and the other features: the rest of its folder is its own. */
export { EgressFields } from './EgressFields';
export { NetworkView } from './NetworkView';
export { allowFromText, allowProblems, allowlistEngineNote } from './egressText';
