// Runs the tiers in order (unit, integration, e2e), each in jest's own order (failed and slow files first).
const Sequencer = require('@jest/test-sequencer').default;

const TIERS = ['unit', 'integration', 'e2e'];
const tier = (test) => {
  const index = TIERS.indexOf(test.context.config.displayName?.name);
  return index === -1 ? TIERS.length : index;
};

class TierSequencer extends Sequencer {
  sort(tests) {
    // Array.prototype.sort is stable: within a tier, jest's order stays
    return super.sort(tests).sort((a, b) => tier(a) - tier(b));
  }
}
module.exports = TierSequencer;
