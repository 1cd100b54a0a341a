import { provide } from './global-setup';

/** The setup of integration files that need Kafka alone (jest.config.js). */
export default function needsKafka(): Promise<void> {
  return provide(['kafka']);
}
