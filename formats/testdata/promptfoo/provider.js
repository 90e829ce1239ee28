// A stand-in for a model: answers from a fixed table, fails on demand.
// No network: it never calls out.
class Provider {
  constructor(options) {
    this.providerId = (options && options.id) || 'file://provider.js';
  }
  id() {
    return this.providerId;
  }
  async callApi(prompt, context) {
    const q = (context && context.vars && context.vars.question) || '';
    if (q.includes('FAIL')) {
      return { error: 'provider.js: simulated upstream timeout' };
    }
    if (q.includes('capital of France')) {
      return { output: 'Paris is the capital of France.' };
    }
    if (q.includes('2+2')) {
      return { output: 'I think it is 5.' };
    }
    return { output: 'I do not know.' };
  }
}
module.exports = Provider;
