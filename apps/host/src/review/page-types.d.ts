// The page's CSS, imported as text (`with { type: 'text' }`): Bun inlines it in a compiled
// `ws`, and the built JS finds it beside it (the build copies `page/`).
declare module '*.css' {
  const text: string;
  export default text;
}
