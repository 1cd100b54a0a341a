import { provide } from './global-setup';

/** The setup of integration files that need Redis alone (jest.config.js). */
export default function needsRedis(): Promise<void> {
  return provide(['redis']);
}
