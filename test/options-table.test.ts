// The README's options table against the types it documents: every option of
// SessionInvariantInstrumentationConfig (with the content-capture option and
// the implicit log's options) has a row, every row names a real option, and
// every variable it names is one the source reads. Read from the sources with
// the TypeScript parser, so a new option without a row fails here.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from './support/run-node';

function interfaceMembers(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(PACKAGE_ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  const found = source.statements.find(
    (node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === name,
  );
  if (found === undefined) throw new Error(`no interface ${name} in ${file}`);
  return found.members.flatMap((member) => (member.name !== undefined && ts.isIdentifier(member.name) ? [member.name.text] : []));
}

/** The rows of the README's "## Options" table: the backticked names of the first cell, and the variable cell. */
function readmeRows(): Array<{ names: string[]; variable: string }> {
  const readme = readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Options\n'), readme.indexOf('\n## Environment variables\n'));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim());
      return { names: [...cells[1]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!), variable: cells[3]!.replace(/`/g, '') };
    });
}

describe('the README options table', () => {
  const options = [
    ...interfaceMembers('src/instrumentation/config.ts', 'SessionInvariantInstrumentationConfig'),
    ...interfaceMembers('src/reaction/content-capture-option.ts', 'ContentCaptureOption'),
    ...interfaceMembers('src/request-path/host.ts', 'ImplicitLogOptions').map((name) => `implicit.${name}`),
    'enabled',
  ].sort();

  it('has a row for every option, and no row for an option that does not exist', () => {
    expect(options).toContain('captureMessageContent');
    expect(options).toContain('implicit.store');
    expect(
      readmeRows()
        .flatMap((row) => row.names)
        .sort(),
    ).toEqual(options);
  });

  it('names only variables the source reads', () => {
    const variables = readmeRows()
      .map((row) => row.variable)
      .filter((variable) => variable !== '—');
    expect(variables.length).toBeGreaterThan(4);
    // Any module may read a variable (they move as the code is split by job):
    // every source file is searched for the name as a string literal.
    const sources = readdirSync(join(PACKAGE_ROOT, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.m?ts$/.test(file))
      .map((file) => readFileSync(join(PACKAGE_ROOT, 'src', file), 'utf8'))
      .join('\n');
    for (const variable of variables) expect(sources, variable).toContain(`'${variable}'`);
  });
});
