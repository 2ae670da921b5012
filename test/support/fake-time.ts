export { FakeTime, settle } from '../../src/testing/manual-time.js';
