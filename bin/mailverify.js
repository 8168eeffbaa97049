#!/usr/bin/env node
// The launcher only: everything lives in dist/, built by `npm run build`.
import { main } from '../dist/cli/main.js';

await main();
