// The ESM entry: the same CommonJS build, so `import` and `require` share one instance.
export * from './langchain.js';
