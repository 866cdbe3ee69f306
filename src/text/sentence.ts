// Messages built from other messages: an embedded message that already ends a sentence must not get a second full
// stop ("Unterminated string.. Every session"). Every place that appends ". <more>" to a message it did not write
// passes that message through here first.

/** The text without its closing full stop(s) and trailing space, ready for `${clause(msg)}. Next sentence`. */
export function clause(text: string): string {
  return text.replace(/[\s.]+$/, '')
}
