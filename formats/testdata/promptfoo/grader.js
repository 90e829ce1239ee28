// A stand-in for the LLM judge behind llm-rubric: it receives the grading
// prompt and answers with promptfoo's grading JSON. No network.
class Grader {
  id() {
    return 'file://grader.js';
  }
  async callApi(prompt) {
    const text = typeof prompt === 'string' ? prompt : JSON.stringify(prompt);
    if (text.includes('Paris')) {
      return { output: JSON.stringify({ pass: true, score: 0.9, reason: 'Names Paris and says it is the capital.' }) };
    }
    if (text.includes('I do not know')) {
      return { output: JSON.stringify({ pass: false, score: 0.2, reason: 'Declines to answer; says "I do not know".' }) };
    }
    return { output: JSON.stringify({ pass: false, score: 0.1, reason: 'The answer is wrong: 2+2 is 4, not 5.' }) };
  }
}
module.exports = Grader;
