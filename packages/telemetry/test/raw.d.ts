// Vite's `?raw` imports: the fixture files' text, with no Node APIs in the tests.
declare module "*?raw" {
  const text: string;
  export default text;
}
