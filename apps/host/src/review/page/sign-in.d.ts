// This script runs in the browser; the server imports it as text only.
declare const text: string;
export default text;
