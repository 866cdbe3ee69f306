// `clawkit autocomplete create` (hidden): @oclif/plugin-autocomplete's command, run from the plugin package.
import {Command} from '@oclif/core'

import {runAutocompleteCommand} from '../../cli/autocomplete-plugin.js'

export default class AutocompleteCreate extends Command {
  static override description = 'create autocomplete setup scripts and completion functions'
  static override hidden = true

  async run(): Promise<void> {
    // Parsed here too, as oclif expects of every command (it warns otherwise); the plugin's command parses again.
    await this.parse(AutocompleteCreate)
    await runAutocompleteCommand('create', this.argv, this.config)
  }
}
