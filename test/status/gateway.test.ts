import net from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {probeGateway} from '../../src/status/gateway.js'

const servers: net.Server[] = []
afterEach(() => {
  for (const s of servers.splice(0)) s.close()
})

async function listening(): Promise<number> {
  const srv = net.createServer((sock) => sock.destroy())
  servers.push(srv)
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  return (srv.address() as net.AddressInfo).port
}

/** Holds the event loop as status's synchronous store scan does. */
function block(ms: number): void {
  const end = Date.now() + ms
  while (Date.now() < end) {
    // busy: no I/O and no timers run meanwhile
  }
}

describe('probeGateway', () => {
  it('a listener is reachable even when the event loop was blocked past the timeout while the connect completed (a long store scan)', async () => {
    const port = await listening()
    const probe = probeGateway(port, 'env', 50)
    // Let the connect be issued (it is started on the next tick), then hold the loop four times the timeout.
    await new Promise((resolve) => process.nextTick(resolve))
    block(200)
    const r = await probe
    expect(r).toMatchObject({port, reachable: true, error: null})
  })

  it('a closed port is refused at once, with no latency', async () => {
    const srv = net.createServer()
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
    const port = (srv.address() as net.AddressInfo).port
    await new Promise<void>((resolve) => srv.close(() => resolve()))
    const r = await probeGateway(port, 'env', 50)
    expect(r).toMatchObject({port, reachable: false, connectLatencyMs: null})
    expect(r.error).toContain('refused')
  })
})
