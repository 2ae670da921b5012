export { FakeTime, settle } from '../../src/harness/manual-time.js';
