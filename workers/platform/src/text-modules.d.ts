/**
 * The files of `swagger-ui-dist` that wrangler.toml's `[[rules]]` bundle as Text modules
 * (`routes/docs.ts`): each import is the file's content as a string.
 */
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const text: string;
  export default text;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const text: string;
  export default text;
}
declare module "swagger-ui-dist/swagger-ui-bundle.js.LICENSE.txt" {
  const text: string;
  export default text;
}
