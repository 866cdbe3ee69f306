// `clawkit autocomplete [shell]`: @oclif/plugin-autocomplete's command, run from the plugin package
// (src/cli/autocomplete-plugin.ts).
import {Args, Command, Flags} from '@oclif/core'

import {runAutocompleteCommand} from '../../cli/autocomplete-plugin.js'

export default class Autocomplete extends Command {
  static override args = {
    shell: Args.string({description: 'Shell type', options: ['zsh', 'bash', 'powershell'], required: false}),
  }
  static override description = 'Display autocomplete installation instructions.'
  static override examples = [
    '$ <%= config.bin %> autocomplete',
    '$ <%= config.bin %> autocomplete bash',
    '$ <%= config.bin %> autocomplete zsh',
    '$ <%= config.bin %> autocomplete powershell',
    '$ <%= config.bin %> autocomplete --refresh-cache',
  ]
  static override flags = {
    'refresh-cache': Flags.boolean({char: 'r', description: 'Refresh cache (ignores displaying instructions)'}),
  }

  async run(): Promise<void> {
    // Parsed here too, as oclif expects of every command (it warns otherwise); the plugin's command parses again.
    await this.parse(Autocomplete)
    await runAutocompleteCommand('index', this.argv, this.config)
  }
}
