/** DI token of the shared kafkajs `Kafka` instance (clients are created from it per use). */
export const KAFKA = Symbol('KAFKA');
