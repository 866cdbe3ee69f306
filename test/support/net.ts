// Test support: a loopback port with nothing listening on it, for "connection refused" cases and for a server to take.
import net from 'node:net'

/** A 127.0.0.1 port that was free a moment ago (bound, then closed): connecting to it is refused, a server may take it. */
export async function freePort(): Promise<number> {
  const srv = net.createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const {port} = srv.address() as net.AddressInfo
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}
