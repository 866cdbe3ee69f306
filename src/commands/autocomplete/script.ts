// `clawkit autocomplete script [shell]` (hidden, what shell setup lines call): @oclif/plugin-autocomplete's command.
import {Args, Command} from '@oclif/core'

import {runAutocompleteCommand} from '../../cli/autocomplete-plugin.js'

export default class AutocompleteScript extends Command {
  static override args = {
    shell: Args.string({description: 'Shell type', options: ['zsh', 'bash', 'powershell'], required: false}),
  }
  static override description = 'outputs autocomplete config script for shells'
  static override hidden = true

  async run(): Promise<void> {
    // Parsed here too, as oclif expects of every command (it warns otherwise); the plugin's command parses again.
    await this.parse(AutocompleteScript)
    await runAutocompleteCommand('script', this.argv, this.config)
  }
}
