// The request runner channel clients talk through: it sends for real, or in --dry-run only records redacted previews.
import {type HttpRequest, type HttpResponse, preview, sendHttp, type SendHttpOptions} from './http.js'
import type {RequestPreview} from './types.js'

export class ChannelIO {
  readonly previews: RequestPreview[] = []
  readonly requests: number[] = []
  /** Message parts the platform confirmed; a later failure means the message arrived incomplete. */
  delivered = 0

  constructor(
    readonly dryRun: boolean,
    private readonly opts: SendHttpOptions,
  ) {}

  get secrets(): (string | undefined)[] {
    return this.opts.secrets
  }

  get label(): string {
    return this.opts.label
  }

  /** Send the request (or, in a dry run, record it and return undefined). */
  async call(req: HttpRequest): Promise<HttpResponse | undefined> {
    this.previews.push(preview(req, this.opts.secrets))
    if (this.dryRun) return undefined
    const res = await sendHttp(req, this.opts)
    this.requests.push(res.status)
    return res
  }
}
