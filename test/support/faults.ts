// The history bugs the zero-code apps can be told to have (FAULT=..., see
// test/fixtures/zero-code/faults.cjs), with the violation kind each is reported as.

export const FAULTS: Array<[fault: string, kind: string]> = [
  ['drop-old-turn', 'missing_message'],
  ['drop-last-reply', 'missing_message'],
  ['duplicate', 'extra_message'],
  ['rewrite-tool-result', 'missing_message'],
  ['reorder', 'order'],
  ['invent-reply', 'extra_message'],
];
