// Jest transform: our TypeScript always goes through swc; a node_modules file only when it is an ES module
// (Nest 12 and several of its dependencies ship ESM only, and jest's CommonJS loader cannot require ESM
// on Node 20). CommonJS dependencies pass through untouched, so the first run stays fast.
const { createTransformer } = require('@swc/jest');

const swc = createTransformer({
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
});

const ESM = /^\s*(import\s*[\w{*'"]|export\s+[\w{*]|export\s*\{)/m;

module.exports = {
  canInstrument: false,
  getCacheKey(src, file, options) {
    return swc.getCacheKey(src, file, options);
  },
  process(src, file, options) {
    if (file.includes('/node_modules/') && !ESM.test(src)) {
      return { code: src };
    }
    return swc.process(src, file, options);
  },
};
