/**
 * The page checks every message against the contract's zod schemas without compiling them.
 * zod compiles an object schema with `new Function` where it may, and finds out by trying once;
 * the page's Content Security Policy allows no eval (electron/main/ipc/securityPolicy.ts,
 * electron/main/host/server.ts), so that try was refused and reported as a policy violation in
 * the console of every page load, although zod caught it and parsed without compiling anyway.
 * Imported first by this folder's index, before any schema is used.
 */
import { z } from 'zod';

z.config({ jitless: true });
