#!/usr/bin/env node
// The checkout's `interlingua` command: the compiled CLI in dist/ (`npm run
// build`), exactly what the published package runs as its bin. Not shipped.
try {
  await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')) {
    process.stderr.write('interlingua: dist/ is missing; run "npm run build" first\n');
    process.exitCode = 2;
  } else throw error;
}
