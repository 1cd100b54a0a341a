import { provide } from './global-setup';

/** The setup of integration files that need PostgreSQL alone (jest.config.js). */
export default function needsPostgres(): Promise<void> {
  return provide(['postgres']);
}
