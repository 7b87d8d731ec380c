-- AlterEnum
ALTER TYPE "WebhookDeliveryStatus" ADD VALUE 'PROCESSING';

-- AlterTable
ALTER TABLE "WebhookDelivery" ADD COLUMN     "startedAt" TIMESTAMP(3),
ADD COLUMN     "sweeps" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "sweptAt" TIMESTAMP(3);
