// Test support: a loopback port with nothing listening on it, for "connection refused" cases.
import net from 'node:net'

/** A 127.0.0.1 port that was free a moment ago (bound, then closed): connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const srv = net.createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const {port} = srv.address() as net.AddressInfo
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}
