/**
 * @module runner
 * The sandboxed test runner: public entry point of the package.
 */
export {};
