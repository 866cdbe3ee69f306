// `clawkit autocomplete create` (hidden): @oclif/plugin-autocomplete's command, run from the plugin package.
import {Command} from '@oclif/core'

import {runAutocompleteCommand} from '../../oclif-plugins.js'

export default class AutocompleteCreate extends Command {
  static override description = 'create autocomplete setup scripts and completion functions'
  static override hidden = true

  async run(): Promise<void> {
    await runAutocompleteCommand('create', this.argv, this.config)
  }
}
