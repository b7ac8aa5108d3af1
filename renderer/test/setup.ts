// Component tests: unmount what each test rendered (vitest runs without globals here).
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => {
  cleanup();
});
