/** Redoc's standalone bundle as text: esbuild's text import attribute (functions/meta/docs-script.ts). */
declare module 'redoc/bundles/redoc.standalone.js' {
  const source: string;
  export default source;
}
