import type { Model } from 'toolwright';
import { selectModel as selectDeskModel } from '../support-desk/model';
import { accountDeskModel } from './script';

/** A real model when the environment names one (the support desk's choice), else the embedded script. */
export function selectModel(env: NodeJS.ProcessEnv = process.env): Model {
  return selectDeskModel(env, accountDeskModel);
}
