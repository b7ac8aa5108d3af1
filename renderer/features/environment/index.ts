/** What the environment feature offers the app and the other features: the rest of its folder is its own. */
export { EnvironmentView } from './EnvironmentView';
