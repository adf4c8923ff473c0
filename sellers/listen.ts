/**
 * A seller's HTTP server on 127.0.0.1, started and stopped the one way every seller here is: listen on
 * the given port (0: a free one), resolve once bound (reject on a bind error), and close by dropping
 * every open connection first (a keep-alive client would otherwise hold close() open).
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackListener {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serve `handler` (an express app, or any node request listener) on 127.0.0.1. */
export async function listenLoopback(handler: RequestListener, port = 0): Promise<LoopbackListener> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}
