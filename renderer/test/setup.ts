// Component tests: unmount what each test rendered (vitest runs without globals here).
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// findBy*/waitFor wait for a condition; their default bound of 1 s is a time, and under CI
// load (the clean-clone run shares 2 cores with the engine's containers) an attach flow of
// three awaited fake calls and two renders took longer than that once: ChatHeader's
// "Detach …" button was not found in time. The bound is a ceiling, not a pace: a passing
// test returns as soon as its condition holds.
configure({ asyncUtilTimeout: 10_000 });

afterEach(() => {
  cleanup();
});
