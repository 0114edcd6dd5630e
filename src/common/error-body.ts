/** The body of a refused API request (400, 404, 409): one sentence naming what is wrong. */
export interface ErrorBody {
  error: string;
}
