// Until apps/host lands, `bun run start` says what it will do.
console.log(
  'ws: the `ws` host (apps/host) has not landed yet. When it does, `bun run start` serves ' +
    'this repository as the store-backed mount `work` over MCP (Streamable HTTP on 127.0.0.1) ' +
    'and prints how to connect an agent. Today: `bun run test` runs every package\u2019s tests.',
);
