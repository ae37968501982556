import { runServiceMain } from '@runledger/messaging';
import { ToolGatewayModule } from './tool-gateway.module';

runServiceMain('tool-gateway', (runtime) => ToolGatewayModule.forRuntime(runtime));
