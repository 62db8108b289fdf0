// Loaded with `node --import` into a `formgate serve` under test: as the "Formgate is ready" line
// is written, writes a line of its own before it saying how many SIGTERM listeners the process has
// then. Whoever reads the ready line may stop the process at once, so by then there must be one.
import fs from 'node:fs';

const writeSync = fs.writeSync;
fs.writeSync = function probedWriteSync(fd, data, ...rest) {
  if (fd === 1 && String(data).includes('Formgate is ready'))
    writeSync.call(fs, 1, `probe: SIGTERM listeners when ready: ${process.listenerCount('SIGTERM')}\n`);
  return writeSync.call(fs, fd, data, ...rest);
};
