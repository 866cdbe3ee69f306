// A minimal Anthropic Messages API on 127.0.0.1:<port> for interop runs: replies "echo <n>: <last user text>",
// streaming or not, and records every request body so a test can check the history the model was sent.
//   node mock-anthropic.mjs <requests.jsonl>   -> prints the port on stdout
import fs from 'node:fs'
import http from 'node:http'

const [log] = process.argv.slice(2)
let n = 0

function lastUserText(body) {
  const msgs = Array.isArray(body.messages) ? body.messages : []
  const last = [...msgs].reverse().find((m) => m.role === 'user')
  if (!last) return ''
  if (typeof last.content === 'string') return last.content
  return (last.content ?? []).filter((b) => b.type === 'text').map((b) => b.text).join(' ')
}

const server = http.createServer((req, res) => {
  let raw = ''
  req.on('data', (d) => (raw += d))
  req.on('end', () => {
    if (!req.url?.includes('/messages')) {
      res.writeHead(404, {'content-type': 'application/json'}).end('{"type":"error","error":{"type":"not_found_error","message":"mock"}}')
      return
    }
    let body = {}
    try {
      body = JSON.parse(raw)
    } catch {}
    n++
    if (log) fs.appendFileSync(log, `${JSON.stringify({n, url: req.url, body})}\n`)
    const text = `echo ${n}: ${lastUserText(body).slice(-200)}`
    const usage = {input_tokens: 100 + n, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0}
    const message = {id: `msg_mock_${n}`, type: 'message', role: 'assistant', model: body.model ?? 'mock-1', content: [{type: 'text', text}], stop_reason: 'end_turn', stop_sequence: null, usage}
    if (!body.stream) {
      res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify(message))
      return
    }
    res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache'})
    const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    send('message_start', {type: 'message_start', message: {...message, content: [], stop_reason: null, usage: {...usage, output_tokens: 1}}})
    send('content_block_start', {type: 'content_block_start', index: 0, content_block: {type: 'text', text: ''}})
    send('content_block_delta', {type: 'content_block_delta', index: 0, delta: {type: 'text_delta', text}})
    send('content_block_stop', {type: 'content_block_stop', index: 0})
    send('message_delta', {type: 'message_delta', delta: {stop_reason: 'end_turn', stop_sequence: null}, usage: {output_tokens: 7}})
    send('message_stop', {type: 'message_stop'})
    res.end()
  })
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
