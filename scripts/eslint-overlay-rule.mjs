// The ESLint rule behind "only src/invariant/overlay.ts decides the overlay
// slot" (docs/architecture.md). dependency-cruiser sees imports, not what a
// module computes, so the rule looks at the code: outside overlay.ts it
// reports a 0-or-1 chosen on a test that speaks of the system message (a
// conditional `… system … ? 1 : 0`, `Number(…system…)`, `+(…system…)`, or an
// `if (…system…)` that returns or assigns 1, or counts up), and any second function
// named `overlaySlotOf`. Such code decides the slot itself, and would stay
// behind when the rule in overlay.ts changes. A site that needs the slot
// calls `overlaySlotOf(requestLeadsWithSystem, logLeadsWithSystem)`.
//
// It reads the shape, not the meaning: a 0 or 1 picked on a system message
// for some other reason is reported too, and is written through a named
// function of its own home (or the rule gets an exception, with its reason).

const SYSTEM = /system/i;

/** Whether the subtree names the system message: an identifier, a property, or a string. */
function mentionsSystem(node) {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(mentionsSystem);
  switch (node.type) {
    case 'Identifier':
    case 'PrivateIdentifier':
      return SYSTEM.test(node.name);
    case 'Literal':
      return typeof node.value === 'string' && SYSTEM.test(node.value);
    case 'TemplateElement':
      return SYSTEM.test(node.value.raw);
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === 'parent' || key === 'loc' || key === 'range' || key === 'typeAnnotation') continue;
    if (value !== null && typeof value === 'object' && mentionsSystem(value)) return true;
  }
  return false;
}

/** A literal number, through any `as`/`satisfies`/non-null wrapper. */
function literalNumber(node) {
  while (node && (node.type === 'TSAsExpression' || node.type === 'TSSatisfiesExpression' || node.type === 'TSNonNullExpression')) {
    node = node.expression;
  }
  return node?.type === 'Literal' && typeof node.value === 'number' ? node.value : undefined;
}

function isZeroOrOne(node) {
  const value = literalNumber(node);
  return value === 0 || value === 1;
}

/**
 * A statement that hands back or stores the slot's 1: `return 1`, `x = 1`,
 * `x += 1`, `x++`. (A `return 0` alone is not one: a 0 chosen on a system
 * message is, in this package, an encoding's "nothing to keep".)
 */
function yieldsOne(statement) {
  if (statement === null || statement === undefined) return false;
  if (statement.type === 'BlockStatement') return statement.body.some(yieldsOne);
  if (statement.type === 'ReturnStatement') return literalNumber(statement.argument) === 1;
  if (statement.type !== 'ExpressionStatement') return false;
  const expression = statement.expression;
  if (expression.type === 'AssignmentExpression') return literalNumber(expression.right) === 1;
  return expression.type === 'UpdateExpression';
}

const MESSAGE =
  'the overlay slot is decided only in src/invariant/overlay.ts: call overlaySlotOf(requestLeadsWithSystem, logLeadsWithSystem) instead of choosing 0 or 1 on a system message here';

/** @type {import('eslint').Rule.RuleModule} */
const overlaySlotDecidedOnce = {
  meta: {
    type: 'problem',
    docs: { description: 'the overlay slot is decided only in src/invariant/overlay.ts' },
    messages: { elsewhere: MESSAGE, secondHome: 'overlaySlotOf lives in src/invariant/overlay.ts only: import it from there' },
    schema: [],
  },
  create(context) {
    return {
      ConditionalExpression(node) {
        if (isZeroOrOne(node.consequent) && isZeroOrOne(node.alternate) && mentionsSystem(node.test)) {
          context.report({ node, messageId: 'elsewhere' });
        }
      },
      CallExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'Number' && mentionsSystem(node.arguments)) {
          context.report({ node, messageId: 'elsewhere' });
        }
      },
      UnaryExpression(node) {
        if (node.operator === '+' && mentionsSystem(node.argument)) context.report({ node, messageId: 'elsewhere' });
      },
      IfStatement(node) {
        if (mentionsSystem(node.test) && (yieldsOne(node.consequent) || yieldsOne(node.alternate))) {
          context.report({ node: node.test, messageId: 'elsewhere' });
        }
      },
      'FunctionDeclaration, VariableDeclarator'(node) {
        if (node.id?.type === 'Identifier' && node.id.name === 'overlaySlotOf') context.report({ node: node.id, messageId: 'secondHome' });
      },
    };
  },
};

/** The package's own ESLint plugin: `local/overlay-slot-decided-once`. */
export default { meta: { name: 'local' }, rules: { 'overlay-slot-decided-once': overlaySlotDecidedOnce } };
