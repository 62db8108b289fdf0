import type { Logger } from 'pino';

/**
 * Keeps `formgate serve` running through an error that nothing caught (a stray 'error' event, a
 * promise rejected with no handler): it is logged, with the error, and the process goes on serving.
 * Visitors' submissions and queued deliveries live in the database, so one broken request or
 * delivery must not take every other one down with it; a job cut short runs again when its lease
 * ends. Returns a function that removes the guard.
 */
export function guardProcess(logger: Pick<Logger, 'error'>): () => void {
  const onException = (err: Error, origin: string) => {
    logger.error({ err, origin }, 'uncaught exception: logged, and Formgate keeps serving');
  };
  const onRejection = (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection: logged, and Formgate keeps serving');
  };
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
