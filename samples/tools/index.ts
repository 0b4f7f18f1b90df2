/** The sample tools, their services and the fake shop, for the support-desk demo and for copying. */
export {
  type Order,
  type OrderItem,
  type FulfillmentStatus,
  FULFILLMENT_STATUSES,
  OrderDatabase,
  orderSummary,
  seedOrders,
} from './orders.db';
export { RefundService, RefundRejected, type Refund, type RefundRequest, type RefundOutcome } from './refund.service';
export { OrderAccessService, type CustomerScope } from './order-access.service';
export { UploadStorage, UploadRejected, MAX_UPLOAD_BYTES, checkFilename, decodeBase64 } from './upload-storage.service';

export { OrderLookupTool, OrderLookupInput, LAST_ORDER_ID } from './order-lookup.tool';
export { RefundProcessorTool, RefundInput } from './process-refund.tool';
export { UserOrdersTool, UserOrdersInput } from './user-orders.tool';
export { LookupOrderTool, LookupOrderInput, OrderFound, OrderNotFound, OrderBlocked, type LookupOrderResult } from './lookup-order.tool';
export { FileProcessorTool, type FileProcessorArgs } from './file-processor.tool';
export { BasicParams, ComplexParams, Address, ORDER_STATUSES, type OrderStatus } from './complex-params';

export { SUPPORT_TOOLS, createSupportApp, resolveTools, type SupportApp, type SupportAppOptions } from './app';
