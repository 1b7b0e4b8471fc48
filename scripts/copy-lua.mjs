// The build step tsc cannot do: ship the Lua scripts beside the compiled engine (dist/lua).
import { cpSync } from 'node:fs';

cpSync(new URL('../src/lua', import.meta.url), new URL('../dist/lua', import.meta.url), {
  recursive: true,
});
