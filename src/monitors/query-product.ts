/**
 * The vector half of the percolator as one matrix product: a batch's post vectors times the
 * transposed matrix of every vector monitor's query, run as a single GEMM by ONNX Runtime (the
 * runtime the bundled encoders already load) rather than a JavaScript loop per (post, monitor)
 * pair. The run happens off the event loop, on one runtime thread, so it neither blocks the
 * server nor competes with the embedder workers for more than one core.
 */
import ort from "onnxruntime-node";
import { OnnxGraph } from "../enrich/use-onnx/onnx-model.js";

/** Gemm with transB is in every opset since 7; 13 is what the runtime's CPU kernels cover best. */
const OPSET = 13;

let session: Promise<ort.InferenceSession> | undefined;

/** The one-node model `products = posts · queriesᵀ`, every size symbolic, built once per process. */
function productSession(): Promise<ort.InferenceSession> {
  session ??= (async () => {
    const g = new OnnxGraph();
    const posts = g.input("posts", "float", ["n", "d"]);
    const queries = g.input("queries", "float", ["m", "d"]);
    g.opNamed("products", "Gemm", [posts, queries], { transB: { int: 1 } });
    g.output("products", "float", ["n", "m"]);
    return ort.InferenceSession.create(g.encode(OPSET, "threadsight-monitors"), {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: "sequential",
    });
  })().catch((err: unknown) => {
    // A failed load is retried by the next batch rather than remembered.
    session = undefined;
    throw err;
  });
  return session;
}

/**
 * Dot products of `n` post vectors with `m` query vectors, all of `d` values, both row-major;
 * the result is n rows of m (row i holds post i against every query).
 */
export async function queryProducts(
  posts: Float32Array,
  n: number,
  queries: Float32Array,
  m: number,
  d: number,
): Promise<Float32Array> {
  if (posts.length !== n * d) throw new Error(`queryProducts: ${posts.length} post values for ${n} x ${d}`);
  if (queries.length !== m * d) throw new Error(`queryProducts: ${queries.length} query values for ${m} x ${d}`);
  if (n === 0 || m === 0) return new Float32Array(n * m);
  const s = await productSession();
  const out = await s.run({
    posts: new ort.Tensor("float32", posts, [n, d]),
    queries: new ort.Tensor("float32", queries, [m, d]),
  });
  const products = out.products;
  if (products === undefined || !(products.data instanceof Float32Array) || products.data.length !== n * m)
    throw new Error("queryProducts: the runtime returned no product matrix");
  return products.data;
}
