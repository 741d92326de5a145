/** The lines of a byte stream (UTF-8), each without its line end, as they arrive; a last line with no end is left out. */
export async function* lines(stream: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      yield buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
    }
  }
}
