/**
 * A small builder for ONNX models, written straight to the protobuf wire format. It covers what
 * the sentence encoder's graph needs (float and int64 initializers, nodes with int, float and
 * int-list attributes, tensor inputs and outputs with symbolic dimensions) and nothing more, so
 * the project needs neither onnx.proto nor a Python exporter: the model is assembled in memory
 * from weights already on disk and handed to ONNX Runtime as bytes.
 *
 * Field numbers follow the published onnx.proto (IR version 8).
 */
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** ONNX TensorProto.DataType values used here. */
const FLOAT = 1;
const INT64 = 7;

/** AttributeProto.AttributeType values used here. */
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_INTS = 7;

/** An attribute value: a number with an explicit kind, or a list of ints. */
export type Attribute = { int: number } | { float: number } | { ints: readonly number[] };

interface Initializer {
  name: string;
  dims: readonly number[];
  kind: "float" | "int64";
  data: Float32Array | BigInt64Array;
}

interface Node {
  op: string;
  inputs: readonly string[];
  outputs: readonly string[];
  attributes: Record<string, Attribute>;
}

interface ValueInfo {
  name: string;
  kind: "float" | "int64";
  /** A number is a fixed size; a string names a dimension that varies per call. */
  dims: readonly (number | string)[];
}

/** Collects initializers and nodes, then serialises one ModelProto. */
export class OnnxGraph {
  private readonly initializers: Initializer[] = [];
  private readonly nodes: Node[] = [];
  private readonly inputs: ValueInfo[] = [];
  private readonly outputs: ValueInfo[] = [];
  private counter = 0;

  /** Declares a graph input. */
  input(name: string, kind: ValueInfo["kind"], dims: ValueInfo["dims"]): string {
    this.inputs.push({ name, kind, dims });
    return name;
  }

  /** Declares a graph output (the value must be produced by a node). */
  output(name: string, kind: ValueInfo["kind"], dims: ValueInfo["dims"]): void {
    this.outputs.push({ name, kind, dims });
  }

  /** Adds a float constant and returns its name. */
  floats(data: Float32Array, dims: readonly number[]): string {
    const name = `c${this.counter++}`;
    if (data.length !== dims.reduce((a, b) => a * b, 1))
      throw new Error(`constant ${name}: ${data.length} values for dims ${dims.join("x")}`);
    this.initializers.push({ name, dims, kind: "float", data });
    return name;
  }

  /** Adds an int64 constant (shapes, axes, slice bounds) and returns its name. */
  int64s(values: readonly number[]): string {
    const name = `c${this.counter++}`;
    this.initializers.push({
      name,
      dims: [values.length],
      kind: "int64",
      data: BigInt64Array.from(values.map((v) => BigInt(v))),
    });
    return name;
  }

  /** Adds a node with one output and returns the output's name. */
  op(op: string, inputs: readonly string[], attributes: Record<string, Attribute> = {}): string {
    const out = `v${this.counter++}`;
    this.nodes.push({ op, inputs, outputs: [out], attributes });
    return out;
  }

  /** Adds a node whose output takes a given name (a graph output). */
  opNamed(name: string, op: string, inputs: readonly string[], attributes: Record<string, Attribute> = {}): string {
    this.nodes.push({ op, inputs, outputs: [name], attributes });
    return name;
  }

  /** Serialises the model: ONNX IR 8, default domain at `opset`. */
  encode(opset: number, producer: string): Uint8Array {
    const w = new BinaryWriter();
    w.tag(1, WireType.Varint).int64(8); // ir_version
    w.tag(2, WireType.LengthDelimited).string(producer); // producer_name
    w.tag(7, WireType.LengthDelimited).fork(); // graph
    for (const node of this.nodes) writeNode(w, node);
    w.tag(2, WireType.LengthDelimited).string("graph"); // GraphProto.name
    for (const init of this.initializers) writeInitializer(w, init);
    for (const input of this.inputs) writeValueInfo(w, 11, input);
    for (const output of this.outputs) writeValueInfo(w, 12, output);
    w.join();
    w.tag(8, WireType.LengthDelimited).fork(); // opset_import
    w.tag(1, WireType.LengthDelimited).string(""); // domain: the default ONNX operators
    w.tag(2, WireType.Varint).int64(opset);
    w.join();
    return w.finish();
  }
}

function writeNode(w: BinaryWriter, node: Node): void {
  w.tag(1, WireType.LengthDelimited).fork(); // GraphProto.node
  for (const input of node.inputs) w.tag(1, WireType.LengthDelimited).string(input);
  for (const output of node.outputs) w.tag(2, WireType.LengthDelimited).string(output);
  w.tag(4, WireType.LengthDelimited).string(node.op);
  for (const [name, value] of Object.entries(node.attributes)) {
    w.tag(5, WireType.LengthDelimited).fork(); // NodeProto.attribute
    w.tag(1, WireType.LengthDelimited).string(name);
    if ("int" in value) {
      w.tag(3, WireType.Varint).int64(value.int);
      w.tag(20, WireType.Varint).int32(ATTR_INT);
    } else if ("float" in value) {
      w.tag(2, WireType.Bit32).float(value.float);
      w.tag(20, WireType.Varint).int32(ATTR_FLOAT);
    } else {
      for (const i of value.ints) w.tag(8, WireType.Varint).int64(i);
      w.tag(20, WireType.Varint).int32(ATTR_INTS);
    }
    w.join();
  }
  w.join();
}

function writeInitializer(w: BinaryWriter, init: Initializer): void {
  w.tag(5, WireType.LengthDelimited).fork(); // GraphProto.initializer
  for (const d of init.dims) w.tag(1, WireType.Varint).int64(d);
  w.tag(2, WireType.Varint).int32(init.kind === "float" ? FLOAT : INT64);
  w.tag(8, WireType.LengthDelimited).string(init.name);
  // raw_data is little-endian, which is how typed arrays sit in memory on every platform Node
  // supports, so the bytes go in as they are.
  w.tag(9, WireType.LengthDelimited).bytes(
    new Uint8Array(init.data.buffer, init.data.byteOffset, init.data.byteLength),
  );
  w.join();
}

function writeValueInfo(w: BinaryWriter, field: number, info: ValueInfo): void {
  w.tag(field, WireType.LengthDelimited).fork(); // ValueInfoProto
  w.tag(1, WireType.LengthDelimited).string(info.name);
  w.tag(2, WireType.LengthDelimited).fork(); // TypeProto
  w.tag(1, WireType.LengthDelimited).fork(); // TypeProto.tensor_type
  w.tag(1, WireType.Varint).int32(info.kind === "float" ? FLOAT : INT64);
  w.tag(2, WireType.LengthDelimited).fork(); // TensorShapeProto
  for (const d of info.dims) {
    w.tag(1, WireType.LengthDelimited).fork(); // Dimension
    if (typeof d === "number") w.tag(1, WireType.Varint).int64(d);
    else w.tag(2, WireType.LengthDelimited).string(d);
    w.join();
  }
  w.join();
  w.join();
  w.join();
  w.join();
}
