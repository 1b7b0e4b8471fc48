/** Values shared by several parts of this module. */

/** How long to wait for a child to exit once SIGKILLed (it cannot refuse; this is a safety net). */
export const KILL_WAIT_MS = 5_000;
export const HOST = '127.0.0.1';
