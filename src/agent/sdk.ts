// The slice of @anthropic-ai/sdk a turn uses: the base client plus the Messages resource, nothing else.
// Why: the package's default export wires every resource (beta, files, models, skills…) into its client, which
// bundles to 1.1 MB; this slice is 0.3 MB and saves ~15 ms on every `agent` run (paired runs, BENCHMARKS.md). The SDK is
// pinned to an exact version (package.json), and `Anthropic` itself is exactly `BaseAnthropic` plus these fields.
import {BaseAnthropic} from '@anthropic-ai/sdk/client'
import {Messages} from '@anthropic-ai/sdk/resources/messages/messages'

export class MessagesClient extends BaseAnthropic {
  messages: Messages = new Messages(this)
}
