/** How a page shows a line: its 1-based number, a tab, then the line as read shows it. */
export function numberedLine(n: number, text: string): string {
  return `${n}\t${text}`;
}
